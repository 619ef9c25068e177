import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { Attachment } from './attachment.entity';
import { AttachmentStorage } from './attachment-storage';
import { AttachmentsController } from './attachments.controller';
import { AttachmentsService } from './attachments.service';
import { LocalFolderStorage } from './local-folder.storage';

/** Attachment files: checks, storage driver, records and the download route (contract §12). */
@Module({
  imports: [TypeOrmModule.forFeature([Attachment])],
  controllers: [AttachmentsController],
  providers: [
    AttachmentsService,
    {
      provide: AttachmentStorage,
      useFactory: (config: AppConfig) => new LocalFolderStorage(config.attachmentDir),
      inject: [AppConfig],
    },
  ],
  exports: [AttachmentsService],
})
export class AttachmentsModule {}
